// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// Recovers the signer of a 65-byte `r ‖ s ‖ v` secp256k1 signature, refusing the malleable high-s twin (EIP-2) as
/// USDC's `ECRecover` does. Says what is wrong instead of reverting, so a caller picks its own answer.
library LowSEcdsa {
    enum Failure {
        None,
        Length,
        V,
        S,
        NoSigner
    }

    /// secp256k1 n / 2: a larger s is the malleable twin of a valid signature.
    uint256 private constant HALF_CURVE_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    function tryRecover(bytes32 digest, bytes memory signature) internal pure returns (address signer, Failure failure) {
        if (signature.length != 65) return (address(0), Failure.Length);
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly {
            r := mload(add(signature, 0x20))
            s := mload(add(signature, 0x40))
            v := byte(0, mload(add(signature, 0x60)))
        }
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return (address(0), Failure.V);
        if (uint256(s) > HALF_CURVE_ORDER) return (address(0), Failure.S);
        signer = ecrecover(digest, v, r, s);
        return signer == address(0) ? (address(0), Failure.NoSigner) : (signer, Failure.None);
    }
}
