// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// Test payer (never shipped): an ERC-1271 wallet that accepts its owner's 65-byte signature in an `eth_call`, and in a
/// transaction that pays for gas (`tx.gasprice` > 0: a block) burns all but `leave` of the gas it is given and refuses:
/// its item fails without "burning its bound" (review 2 finding 4), while its lone trial succeeds.
contract GasDodgeWallet {
    address public immutable owner;
    uint256 public immutable leave;

    constructor(address owner_, uint256 leave_) {
        owner = owner_;
        leave = leave_;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        if (tx.gasprice > 0) {
            bytes32 h = digest;
            while (gasleft() > leave) h = keccak256(abi.encode(h));
            return h == bytes32(0) ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
        }
        if (signature.length != 65) return 0xffffffff;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return ecrecover(digest, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}
