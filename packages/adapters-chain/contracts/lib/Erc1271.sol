// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// ERC-1271: a contract's answer to "is this signature yours over this digest?".
interface IErc1271 {
    /// Returns ERC1271_MAGIC_VALUE for yes; anything else (or a revert) is no.
    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4);
}

bytes4 constant ERC1271_MAGIC_VALUE = IErc1271.isValidSignature.selector; // 0x1626ba7e
