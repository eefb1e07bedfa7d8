// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ERC1271_MAGIC_VALUE} from "./Erc1271.sol";
import {LowSEcdsa} from "./LowSEcdsa.sol";

/// Whether `signature` is `signer`'s over `digest`, with the semantics of USDC v2.2's `SignatureChecker`
/// (OpenZeppelin's): an address without code must be the low-s ECDSA signer; for an address with code only ERC-1271
/// `isValidSignature` is consulted, through a staticcall, and must return its own selector. Reverts with the demo
/// token's messages.
library SignerCheck {
    function requireSignedBy(address signer, bytes32 digest, bytes memory signature) internal view {
        if (signer.code.length > 0) {
            require(isValidErc1271Signature(signer, digest, signature), "DemoUsd: invalid signature");
            return;
        }
        (address recovered, LowSEcdsa.Failure failure) = LowSEcdsa.tryRecover(digest, signature);
        require(failure != LowSEcdsa.Failure.Length, "DemoUsd: invalid signature length");
        require(failure != LowSEcdsa.Failure.V, "DemoUsd: invalid signature v value");
        require(failure != LowSEcdsa.Failure.S, "DemoUsd: invalid signature s value");
        require(failure == LowSEcdsa.Failure.None && recovered == signer, "DemoUsd: invalid signature");
    }

    function isValidErc1271Signature(address signer, bytes32 digest, bytes memory signature) private view returns (bool) {
        (bool success, bytes memory result) =
            signer.staticcall(abi.encodeWithSelector(ERC1271_MAGIC_VALUE, digest, signature));
        return success && result.length >= 32 && abi.decode(result, (bytes32)) == bytes32(ERC1271_MAGIC_VALUE);
    }
}
