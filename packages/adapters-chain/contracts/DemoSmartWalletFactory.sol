// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

import {DemoSmartWallet} from "./DemoSmartWallet.sol";

/// Deploys DemoSmartWallets with CREATE2, as smart-wallet factories do (Coinbase Smart Wallet's, ERC-4337's): the
/// wallet's address is known before it exists, so it can receive tokens and sign (ERC-6492) while still undeployed.
contract DemoSmartWalletFactory {
    event WalletCreated(address indexed wallet, address indexed owner, uint256 salt);

    /// The wallet of (owner, salt), deployed if it is not yet: calling again returns the same wallet, so a payment
    /// that carries this call after the wallet was deployed still goes through.
    function createAccount(address owner, uint256 salt) external returns (DemoSmartWallet wallet) {
        address predicted = getAddress(owner, salt);
        if (predicted.code.length > 0) return DemoSmartWallet(predicted);
        wallet = new DemoSmartWallet{salt: bytes32(salt)}(owner);
        emit WalletCreated(address(wallet), owner, salt);
    }

    /// The address `createAccount(owner, salt)` deploys to (EIP-1014).
    function getAddress(address owner, uint256 salt) public view returns (address) {
        bytes32 initCodeHash = keccak256(abi.encodePacked(type(DemoSmartWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), bytes32(salt), initCodeHash)))));
    }
}
