// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {ERC1271_MAGIC_VALUE, IErc1271} from "./lib/Erc1271.sol";

/**
 * Never deployed. Sent as the init code of an `eth_call` without `to` (a "deployless" call), as EIP-6492's universal
 * validator is: for a payer not deployed yet, its constructor calls the wallet factory with the calldata the ERC-6492
 * wrapper carries, then asks the now deployed payer ERC-1271 `isValidSignature(digest, signature)`. Nothing persists:
 * it is a call, not a transaction. Both calls get bounded gas, so a factory cannot make the node work without end.
 *
 * Result: abi.encode(uint256 verdict): 0 valid; 1 the factory call reverted (and the payer has no code); 2 the payer
 * has no code after the factory call; 3 the payer did not answer the ERC-1271 magic value.
 */
contract Erc6492Validator {
    constructor(
        address payer,
        bytes32 digest,
        address factory,
        bytes memory factoryCalldata,
        bytes memory signature,
        uint256 factoryGas,
        uint256 checkGas
    ) {
        uint256 verdict = 0;
        bool factoryOk = true;
        if (payer.code.length == 0) (factoryOk, ) = factory.call{gas: factoryGas}(factoryCalldata);
        if (payer.code.length == 0) {
            verdict = factoryOk ? 2 : 1;
        } else {
            (bool ok, bytes memory answer) = payer.staticcall{gas: checkGas}(
                abi.encodeCall(IErc1271.isValidSignature, (digest, signature))
            );
            bytes32 word;
            if (answer.length >= 32) {
                assembly {
                    word := mload(add(answer, 32))
                }
            }
            verdict = ok && bytes4(word) == ERC1271_MAGIC_VALUE ? 0 : 3;
        }
        bytes memory result = abi.encode(verdict);
        assembly {
            return(add(result, 32), mload(result))
        }
    }
}
