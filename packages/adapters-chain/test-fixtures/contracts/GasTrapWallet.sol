// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// Test payer (never shipped): an ERC-1271 wallet that accepts its owner's 65-byte signature, and burns every unit of
/// gas it is given when little is left (below `threshold`) in a transaction that pays for gas (`tx.gasprice` > 0: a
/// block, not an `eth_call`), so that its trial passes and its settle burns. With `onChainOnly` false it burns whenever
/// gas is low, as the wallet of issue 23 item 1 did (a trial with more gas than the settle's call passed it).
contract GasTrapWallet {
    address public immutable owner;
    uint256 public immutable threshold;
    bool public immutable onChainOnly;

    constructor(address owner_, uint256 threshold_, bool onChainOnly_) {
        owner = owner_;
        threshold = threshold_;
        onChainOnly = onChainOnly_;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        if (gasleft() < threshold && (!onChainOnly || tx.gasprice > 0)) {
            bytes32 h = digest;
            while (true) h = keccak256(abi.encode(h));
        }
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(digest, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}
