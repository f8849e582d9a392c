"""The published tool descriptors, read from the ``seeds/`` directory shipped beside this package.

In the source tree ``seeds`` is a link to ``spec/seeds`` (the contract, kept equal to the shared
one by a test); the layer's build copies the files themselves. A tool's limits, input fields,
schemas and examples are read from here, so the code cannot hold a second copy of them.
"""

import os
from typing import Any, Final

import orjson

SEEDS: Final = os.path.join(os.path.dirname(__file__), "seeds")


class Descriptor:
    """One descriptor as published: its identity, limits, schemas and the bytes of the file."""

    __slots__ = ("data", "execute_url", "id", "input_schema", "limits", "output_schema", "raw", "version")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.data: dict[str, Any] = orjson.loads(raw)
        self.id: str = self.data["id"]
        self.version: str = self.data["version"]
        self.execute_url: str = self.data["execute_url"]
        self.limits: dict[str, int] = self.data["limits"]
        self.input_schema: dict[str, Any] = self.data["input_schema"]
        self.output_schema: dict[str, Any] = self.data["output_schema"]

    def example_value(self, field: str) -> object:
        """A value of ``field`` to show a caller: the one of the first example that gives it, else
        the schema's first ``enum`` value or its ``minimum``."""
        for example in self.data["examples"]:
            if field in example["input"]:
                return example["input"][field]
        spec = self.input_schema["properties"][field]
        return spec["enum"][0] if "enum" in spec else spec.get("minimum", "")


def load_descriptor(tool_id: str) -> Descriptor:
    with open(os.path.join(SEEDS, f"{tool_id}.json"), "rb") as stream:
        descriptor = Descriptor(stream.read())
    if descriptor.id != tool_id:
        raise ValueError(f"{tool_id}.json describes {descriptor.id}")
    return descriptor


def descriptor_ids() -> list[str]:
    """Every published tool id: one descriptor file each."""
    return sorted(name.removesuffix(".json") for name in os.listdir(SEEDS) if name.endswith(".json"))
