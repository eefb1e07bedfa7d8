// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ERC1271_MAGIC_VALUE, IErc1271} from "./lib/Erc1271.sol";
import {LowSEcdsa} from "./lib/LowSEcdsa.sol";

/// The demo smart-contract wallet: an ERC-1271 signer owned by one EOA key, for paying DemoUsd (or USDC v2.2) through
/// the `bytes signature` overloads. It accepts the owner's low-s ECDSA signature over the digest itself (no
/// replay-safe rewrapping, unlike Coinbase Smart Wallet) and holds tokens; it does nothing else.
contract DemoSmartWallet is IErc1271 {
    bytes4 private constant ERC1271_INVALID = 0xffffffff;

    address public immutable owner;

    constructor(address owner_) {
        require(owner_ != address(0), "DemoSmartWallet: owner is the zero address");
        owner = owner_;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view override returns (bytes4) {
        (address signer, LowSEcdsa.Failure failure) = LowSEcdsa.tryRecover(digest, signature);
        return failure == LowSEcdsa.Failure.None && signer == owner ? ERC1271_MAGIC_VALUE : ERC1271_INVALID;
    }
}
