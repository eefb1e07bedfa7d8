// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// One fixed owner, the deployer: the demo token's minter, blacklister and pauser in one (USDC has a role for each).
abstract contract Owned {
    address public immutable owner;

    constructor() {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "DemoUsd: caller is not the owner");
        _;
    }
}
