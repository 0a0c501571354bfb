"""Inventory bookkeeping for the warehouse service."""

from dataclasses import dataclass, field
from typing import Optional


class OutOfStock(Exception):
    """Raised when a reservation asks for more than is on hand."""


@dataclass
class Item:
    sku: str
    name: str
    quantity: int = 0
    tags: list = field(default_factory=list)

    def label(self):
        return f"{self.name} ({self.sku})"


class Inventory:
    def __init__(self, items=None):
        self.items = {}
        for item in items or []:
            self.items[item.sku] = item

    def find(self, sku: str) -> Optional[Item]:
        item = self.items.get(sku)
        if item is None:
            return None
        return item

    def reserve(self, sku: str, count: int) -> Item:
        item = self.find(sku)
        if item is None:
            raise KeyError(sku)
        if count <= 0:
            raise ValueError("count must be positive")
        if item.quantity < count:
            raise OutOfStock(f"only {item.quantity} of {sku} left")
        item.quantity -= count
        return item

    def restock(self, sku: str, count: int) -> Item:
        item = self.find(sku)
        if item is None:
            item = Item(sku=sku, name=sku)
            self.items[sku] = item
        item.quantity += count
        return item

    def low_stock(self, threshold=5):
        result = []
        for item in self.items.values():
            if item.quantity < threshold:
                result.append(item)
        return sorted(result, key=lambda i: i.quantity)

    def report(self):
        lines = ["SKU\tName\tQty"]
        for item in sorted(self.items.values(), key=lambda i: i.sku):
            lines.append(f"{item.sku}\t{item.name}\t{item.quantity}")
        return "\n".join(lines)


def load(path):
    """Read an inventory from a tab-separated file."""
    items = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            sku, name, qty = line.rstrip("\n").split("\t")
            items.append(Item(sku=sku, name=name, quantity=int(qty)))
    return Inventory(items)


def main():
    inv = load("stock.tsv")
    for item in inv.low_stock():
        print(f"Low: {item.label()} \u2013 {item.quantity} left")
    print(inv.report())


if __name__ == "__main__":
    main()
