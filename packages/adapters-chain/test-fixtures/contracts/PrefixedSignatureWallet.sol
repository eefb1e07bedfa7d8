// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// Test payer (never shipped): an ERC-1271 wallet whose signatures are 66 bytes, a validator byte (0: the owner's
/// ECDSA key) then r ‖ s ‖ v, as modular wallets prefix theirs; only a token's `bytes signature` form can carry them.
contract PrefixedSignatureWallet {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        if (signature.length != 66 || signature[0] != 0x00) return 0xffffffff;
        bytes32 r = bytes32(signature[1:33]);
        bytes32 s = bytes32(signature[33:65]);
        uint8 v = uint8(signature[65]);
        return ecrecover(digest, v, r, s) == owner ? this.isValidSignature.selector : bytes4(0xffffffff);
    }
}
