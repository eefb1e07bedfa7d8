// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {Owned} from "./Owned.sol";

/// USDC's blacklist (FiatTokenV1 `Blacklistable`): same functions, events and revert message; the owner blacklists.
abstract contract Blacklistable is Owned {
    mapping(address => bool) private _blacklisted;

    event Blacklisted(address indexed _account);
    event UnBlacklisted(address indexed _account);

    modifier notBlacklisted(address account) {
        require(!_blacklisted[account], "Blacklistable: account is blacklisted");
        _;
    }

    function isBlacklisted(address account) external view returns (bool) {
        return _blacklisted[account];
    }

    function blacklist(address account) external onlyOwner {
        _blacklisted[account] = true;
        emit Blacklisted(account);
    }

    function unBlacklist(address account) external onlyOwner {
        _blacklisted[account] = false;
        emit UnBlacklisted(account);
    }
}
