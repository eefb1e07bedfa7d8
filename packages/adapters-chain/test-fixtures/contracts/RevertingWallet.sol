// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// Test payer (never shipped): an ERC-1271 wallet whose `isValidSignature` always reverts, with 4 KiB of revert data.
contract RevertingWallet {
    function isValidSignature(bytes32, bytes calldata) external pure returns (bytes4) {
        bytes memory junk = new bytes(4096);
        assembly {
            revert(add(junk, 32), mload(junk))
        }
    }
}
