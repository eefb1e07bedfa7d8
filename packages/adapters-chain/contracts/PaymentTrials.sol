// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/**
 * Created once per `PaymentTrials` run: `run` makes one call and reverts with what happened, a trial that leaves no
 * state behind, so the trials of one run never see each other's transfers.
 *
 * Revert data: abi.encode(bool succeeded, uint256 gasUsed, bytes answer).
 */
contract CallTrial {
    function run(address target, bytes calldata data, uint256 gasCap) external {
        uint256 before = gasleft();
        (bool succeeded, bytes memory answer) = target.call{gas: gasCap}(data);
        bytes memory result = abi.encode(succeeded, before - gasleft(), answer);
        assembly {
            revert(add(result, 32), mload(result))
        }
    }
}

/**
 * Never deployed. Sent as the init code of an `eth_call` without `to` (a "deployless" call, like `PayerStates.sol`):
 * for each payment it reads the payer's balance and authorization state and runs the exact call the settle would send,
 * each in its own trial, so one bad payment never hides the others.
 *
 * Result: abi.encode(uint256 blockTimestamp, uint256[] words, bytes[] answers), seven words a payment:
 * balanceOf(payer), authorizationState(payer, nonce), 1 when both reads answered one word, 1 when the call succeeded,
 * the gas the call used (at most `gasCap`), when it failed the token's flags (1 paused, 2 payer blacklisted,
 * 4 payee blacklisted), and the size of the payer's code (an EIP-7702-delegated EOA has 23 bytes: a token hands its
 * signatures to its `isValidSignature`). `answers[i]` is the failed call's revert data, cut to 256 bytes.
 */
contract PaymentTrials {
    struct Payment {
        address payer;
        address payee;
        bytes32 nonce;
        address target;
        bytes data;
    }

    uint256 private constant WORDS = 7;
    uint256 private constant MAX_ANSWER = 256;

    constructor(address token, Payment[] memory payments, uint256 gasCap) {
        uint256 n = payments.length;
        uint256[] memory words = new uint256[](WORDS * n);
        bytes[] memory answers = new bytes[](n);
        CallTrial trier = new CallTrial();
        for (uint256 i = 0; i < n; i++) {
            answers[i] = trial(trier, token, payments[i], gasCap, words, WORDS * i);
        }
        bytes memory result = abi.encode(block.timestamp, words, answers);
        assembly {
            return(add(result, 32), mload(result))
        }
    }

    /** Writes one payment's seven words from `first`; answers the revert data of a failed call. */
    function trial(CallTrial trier, address token, Payment memory p, uint256 gasCap, uint256[] memory words, uint256 first) private returns (bytes memory) {
        (bool balanceOk, uint256 balance) = readWord(token, abi.encodeWithSelector(0x70a08231, p.payer));
        (bool stateOk, uint256 state) = readWord(token, abi.encodeWithSelector(0xe94a0102, p.payer, p.nonce));
        words[first] = balance;
        words[first + 1] = state;
        words[first + 2] = balanceOk && stateOk ? 1 : 0;
        words[first + 6] = codeSize(p.payer);
        (bool succeeded, uint256 gasUsed, bytes memory answer) = attempt(trier, p.target, p.data, gasCap);
        words[first + 4] = gasUsed;
        if (succeeded) {
            words[first + 3] = 1;
            return "";
        }
        words[first + 5] = flags(token, p.payer, p.payee);
        return cut(answer);
    }

    function attempt(CallTrial trier, address target, bytes memory data, uint256 gasCap) private returns (bool, uint256, bytes memory) {
        try trier.run(target, data, gasCap) {
            return (false, 0, "");
        } catch (bytes memory result) {
            // Shorter than our own encoding: the trial itself ran out of gas.
            if (result.length < 96) return (false, gasCap, "");
            return abi.decode(result, (bool, uint256, bytes));
        }
    }

    /** USDC's `paused()` and `isBlacklisted(address)`; a token without them reads as neither. */
    function flags(address token, address payer, address payee) private view returns (uint256 f) {
        (bool ok, uint256 word) = readWord(token, abi.encodeWithSelector(0x5c975abb));
        if (ok && word != 0) f |= 1;
        (ok, word) = readWord(token, abi.encodeWithSelector(0xfe575a87, payer));
        if (ok && word != 0) f |= 2;
        (ok, word) = readWord(token, abi.encodeWithSelector(0xfe575a87, payee));
        if (ok && word != 0) f |= 4;
    }

    function codeSize(address account) private view returns (uint256 size) {
        assembly {
            size := extcodesize(account)
        }
    }

    function cut(bytes memory answer) private pure returns (bytes memory) {
        if (answer.length <= MAX_ANSWER) return answer;
        assembly {
            mstore(answer, MAX_ANSWER)
        }
        return answer;
    }

    function readWord(address token, bytes memory call) private view returns (bool, uint256) {
        (bool ok, bytes memory answer) = token.staticcall(call);
        if (!ok || answer.length != 32) return (false, 0);
        return (true, abi.decode(answer, (uint256)));
    }
}
