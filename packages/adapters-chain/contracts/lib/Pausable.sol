// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Owned} from "./Owned.sol";

/// USDC's pause (FiatTokenV1 `Pausable`): same functions, events and revert message; the owner pauses.
abstract contract Pausable is Owned {
    bool public paused;

    event Pause();
    event Unpause();

    modifier whenNotPaused() {
        require(!paused, "Pausable: paused");
        _;
    }

    function pause() external onlyOwner {
        paused = true;
        emit Pause();
    }

    function unpause() external onlyOwner {
        paused = false;
        emit Unpause();
    }
}
