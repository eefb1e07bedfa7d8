// SPDX-License-Identifier: MIT
pragma solidity ^0.8.30;

/// EIP-3009 `transferWithAuthorization` in its two forms (USDC before v2.2 has only the first).
interface IEip3009Vrs {
    function transferWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce,
        uint8 v, bytes32 r, bytes32 s
    ) external;
}

interface IEip3009Bytes {
    function transferWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce,
        bytes memory signature
    ) external;
}

/// Settles many EIP-3009 authorizations of one token in one transaction (docs/ARCHITECTURE.md §5.7). Each item is its
/// own call of the token with the item's own `gas` (at most `itemGasLimit`), so a failing item (used nonce, blacklisted payer or payee,
/// balance gone, bad signature, paused token, a payer wallet that reverts or burns gas) fails alone; its outcome is an
/// `ItemSettled` event. The token moves value from payer to payee directly: this contract holds nothing, accepts no
/// ETH, and calls nothing but the token's `transferWithAuthorization`, so it moves only what a payer signed.
contract BatchSettler {
    struct Item {
        address from;
        address to;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        /// The gas this item's token call gets, at most `itemGasLimit` (more is cut to it): the facilitator's budget for
        /// it, so that a payer that gained code after its trial (EIP-7702) burns no more than its item was budgeted.
        uint256 gas;
        /// 65 bytes (r ‖ s ‖ v): sent through the v,r,s form, which every EIP-3009 token has and which USDC v2.2 and
        /// DemoUsd check exactly as the bytes form (ERC-1271 for a payer with code). Any other length: the bytes form.
        bytes signature;
    }

    /// Revert data of a failed item is kept up to this many bytes: the token's reason fits, a payer cannot bloat logs.
    uint256 public constant MAX_REVERT_DATA = 256;
    /// Gas this contract needs around one item's call (encoding, the call itself, the event), on top of the item's
    /// bound and the 1/64 that EIP-150 keeps back.
    uint256 private constant ITEM_OVERHEAD_GAS = 20_000;

    address public immutable token;
    /// The most gas one item's token call may use: a payer wallet burning gas in `isValidSignature` costs at most this.
    uint256 public immutable itemGasLimit;
    address public owner;
    mapping(address => bool) public isSettler;

    /// One per item run, in order: `revertData` is the token's revert data cut to MAX_REVERT_DATA bytes, empty on success.
    event ItemSettled(uint256 index, address indexed authorizer, bytes32 indexed nonce, bool success, bytes revertData);
    /// After a failed item's `ItemSettled`: the gas its token call took (a payer wallet that burnt its bound shows here).
    event ItemGasUsed(uint256 index, uint256 gasUsed);
    /// Too little gas was left for the next item's gas: items `firstNotRun` to `itemCount - 1` were not run (nothing
    /// of them moved, their authorizations are untouched); the items before keep their outcomes.
    event BatchStopped(uint256 firstNotRun, uint256 itemCount);
    event SettlerSet(address indexed account, bool allowed);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    constructor(address token_, uint256 itemGasLimit_) {
        require(token_.code.length > 0, "BatchSettler: token has no code");
        require(itemGasLimit_ >= 50_000 && itemGasLimit_ <= 5_000_000, "BatchSettler: item gas limit out of range");
        token = token_;
        itemGasLimit = itemGasLimit_;
        owner = msg.sender;
        emit OwnershipTransferred(address(0), msg.sender);
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "BatchSettler: caller is not the owner");
        _;
    }

    function setSettler(address account, bool allowed) external onlyOwner {
        isSettler[account] = allowed;
        emit SettlerSet(account, allowed);
    }

    /// One step, to a non-zero address: the owner is an operator's key, not a contract that must accept.
    function transferOwnership(address newOwner) external onlyOwner {
        require(newOwner != address(0), "BatchSettler: new owner is the zero address");
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    /// Settles each item in its own call of the token. Reverts as a whole only for the caller's faults: not a settler or
    /// no items. With too little gas left to give the next item its `gas` it stops there, without reverting
    /// (`BatchStopped`): an item never fails for lack of gas the batch did not give it, and a payer wallet that burns
    /// more gas in the block than in its trial cannot undo the items already run.
    function settle(Item[] calldata items) external {
        require(isSettler[msg.sender], "BatchSettler: caller is not a settler");
        require(items.length > 0, "BatchSettler: no items");
        uint256 bound = itemGasLimit;
        uint256 scratch;
        assembly ("memory-safe") {
            scratch := mload(0x40)
        }
        for (uint256 i = 0; i < items.length; i++) {
            Item calldata item = items[i];
            uint256 itemGas = item.gas < bound ? item.gas : bound;
            if (gasleft() < itemGas + itemGas / 63 + ITEM_OVERHEAD_GAS) {
                emit BatchStopped(i, items.length);
                return;
            }
            uint256 before = gasleft();
            (bool success, bytes memory revertData) = _call(_callData(item), itemGas);
            emit ItemSettled(i, item.from, item.nonce, success, revertData);
            if (!success) emit ItemGasUsed(i, before - gasleft());
            // Nothing of this item is used any more: the next one reuses its memory, so memory does not grow with
            // the batch (its cost is quadratic in size).
            assembly {
                mstore(0x40, scratch)
            }
        }
    }

    function _callData(Item calldata item) private pure returns (bytes memory) {
        bytes calldata signature = item.signature;
        if (signature.length != 65) {
            return abi.encodeCall(
                IEip3009Bytes.transferWithAuthorization,
                (item.from, item.to, item.value, item.validAfter, item.validBefore, item.nonce, signature)
            );
        }
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        return abi.encodeCall(
            IEip3009Vrs.transferWithAuthorization,
            (item.from, item.to, item.value, item.validAfter, item.validBefore, item.nonce, v, r, s)
        );
    }

    /// The token call with at most `gasLimit` gas; on failure its revert data, copied only up to MAX_REVERT_DATA bytes so that
    /// large revert data costs this contract nothing.
    function _call(bytes memory data, uint256 gasLimit) private returns (bool success, bytes memory revertData) {
        address target = token;
        assembly ("memory-safe") {
            success := call(gasLimit, target, 0, add(data, 32), mload(data), 0, 0)
        }
        if (success) return (true, "");
        uint256 size;
        assembly ("memory-safe") {
            size := returndatasize()
        }
        if (size > MAX_REVERT_DATA) size = MAX_REVERT_DATA;
        revertData = new bytes(size);
        assembly ("memory-safe") {
            returndatacopy(add(revertData, 32), 0, size)
        }
    }
}
