// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// Test payer (never shipped): an ERC-1271 wallet whose `isValidSignature` calls the settler again with the call data
/// it was given (a `settle` of someone else's authorization). Answers yes if that call went through; otherwise reverts
/// with the settler's revert data, so a direct `eth_call` shows why the settler refused.
contract ReentrantWallet {
    address public immutable settler;
    bytes public reentry;

    constructor(address settler_) {
        settler = settler_;
    }

    function setReentry(bytes calldata data) external {
        reentry = data;
    }

    function isValidSignature(bytes32, bytes calldata) external returns (bytes4) {
        (bool success, bytes memory answer) = settler.call(reentry);
        if (success) return this.isValidSignature.selector;
        assembly {
            revert(add(answer, 32), mload(answer))
        }
    }
}
