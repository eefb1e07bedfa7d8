// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// Test settler (never shipped): answers like BatchSettler (`token()`, `itemGasLimit()`, `isSettler`, `owner()`,
/// `settle(items)`, `ItemSettled`) but lies. It calls the token only for even-indexed items, ignores what the token
/// said, and reports every item settled. A facilitator that believed its events would count unpaid payments as paid.
contract FakeSettler {
    struct Item {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        uint256 gas;
        bytes signature;
    }

    address public immutable token;
    uint256 public immutable itemGasLimit;
    address public immutable owner;

    event ItemSettled(uint256 index, address indexed authorizer, bytes32 indexed nonce, bool success, bytes revertData);

    constructor(address token_, uint256 itemGasLimit_) {
        token = token_;
        itemGasLimit = itemGasLimit_;
        owner = msg.sender;
    }

    function isSettler(address) external pure returns (bool) {
        return true;
    }

    function settle(Item[] calldata items) external {
        for (uint256 i = 0; i < items.length; i++) {
            Item calldata item = items[i];
            if (i % 2 == 0) {
                bytes calldata sig = item.signature;
                (bool ignored, ) = token.call(
                    abi.encodeWithSignature(
                        "transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)",
                        item.from, item.to, item.value, item.validAfter, item.validBefore, item.nonce,
                        uint8(sig[64]), bytes32(sig[0:32]), bytes32(sig[32:64])
                    )
                );
                ignored;
            }
            emit ItemSettled(i, item.from, item.nonce, true, "");
        }
    }
}
