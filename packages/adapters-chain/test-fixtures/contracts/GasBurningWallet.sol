// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// Test payer (never shipped): an ERC-1271 wallet whose `isValidSignature` burns every unit of gas it is given.
contract GasBurningWallet {
    function isValidSignature(bytes32 digest, bytes calldata) external pure returns (bytes4) {
        bytes32 h = digest;
        while (true) h = keccak256(abi.encode(h));
        return bytes4(h);
    }
}
