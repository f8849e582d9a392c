"""The template's view of the functions, read from ``template.yaml`` as CloudFormation would see
it (parameter defaults and ``Globals`` applied): the one place the local runner, ``make invoke``,
the sample events and the tests learn which functions, routes and settings exist."""

import importlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from scripts import SOURCE_DIRS
from scripts.lambda_events import LOCAL_ACCOUNT_ID, LOCAL_REGION, Handler

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "template.yaml"
SOURCE_PYTHONPATH = os.pathsep.join(SOURCE_DIRS)
"""``PYTHONPATH`` for a fresh interpreter that runs the layer's and the functions' source: the
Makefile exports the same, but tests and the bench may be run without ``make``."""


@dataclass(frozen=True)
class ApiRoute:
    function: str
    method: str
    path: str
    """As the template writes it: ``{name}`` is a path parameter (one segment)."""
    open_to_all: bool = False
    """The route has an ``Auth`` of its own: the template sets one only to open a route to callers
    without a key or a signature, whatever ``AuthMode`` (tests/packaging checks the deployed API)."""

    def matches(self, path: str) -> bool:
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(self.path))
        return re.fullmatch(pattern, path) is not None


@dataclass(frozen=True)
class FunctionSpec:
    """One function of the template: where its code is, what triggers it, what it is given."""

    logical_id: str
    code_uri: Path
    handler: str
    routes: tuple[ApiRoute, ...]
    environment: dict[str, str] = field(default_factory=dict)
    properties: dict[str, Any] = field(default_factory=dict)

    @property
    def module(self) -> str:
        """The handler's module (``Handler`` is ``<module>.<attribute>``)."""
        return self.handler.rpartition(".")[0]

    @property
    def attribute(self) -> str:
        return self.handler.rpartition(".")[2]

    def load(self) -> Handler:
        """Import the handler as Lambda would (code dir and layer on ``sys.path``)."""
        handler: Handler = getattr(importlib.import_module(self.module), self.attribute)
        return handler


class _CfnLoader(yaml.SafeLoader):
    """Reads CloudFormation short-form tags as their long form: ``!Ref X`` is ``{"Ref": "X"}``."""


def _cfn_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {"Ref" if suffix == "Ref" else f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _cfn_tag)


def load_template(path: Path = TEMPLATE) -> dict[str, Any]:
    with path.open(encoding="utf-8") as stream:
        template: dict[str, Any] = yaml.load(stream, Loader=_CfnLoader)  # noqa: S506 (SafeLoader subclass)
    return template


def parameter_defaults(template: Mapping[str, Any]) -> dict[str, str]:
    return {name: str(spec.get("Default", "")) for name, spec in template.get("Parameters", {}).items()}


def resolve(value: Any, parameters: Mapping[str, str]) -> Any:
    """A template value with ``Ref``s to parameters, and ``Fn::Sub`` strings over parameters and the
    local account's pseudo parameters, made as CloudFormation makes them."""
    if isinstance(value, dict) and set(value) == {"Ref"} and value["Ref"] in parameters:
        return parameters[value["Ref"]]
    if isinstance(value, dict) and set(value) == {"Fn::Sub"} and isinstance(value["Fn::Sub"], str):
        values = {**parameters, "AWS::AccountId": LOCAL_ACCOUNT_ID, "AWS::Region": LOCAL_REGION}
        return re.sub(r"\$\{([^}]+)\}", lambda variable: values[variable[1]], value["Fn::Sub"])
    return value


def documents_bucket(template: Mapping[str, Any] | None = None) -> str:
    """The documents bucket's name as the template's ``BucketName`` makes it, in the local account."""
    template = template or load_template()
    (name,) = [
        resource["Properties"]["BucketName"]
        for resource in template["Resources"].values()
        if resource["Type"] == "AWS::S3::Bucket"
    ]
    return str(resolve(name, parameter_defaults(template)))


def functions(template: Mapping[str, Any] | None = None) -> dict[str, FunctionSpec]:
    """Every ``AWS::Serverless::Function`` of the template, with Globals and parameter defaults applied."""
    template = template or load_template()
    parameters = parameter_defaults(template)
    defaults = template.get("Globals", {}).get("Function", {})
    specs: dict[str, FunctionSpec] = {}
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        properties = {**defaults, **resource["Properties"]}
        routes = tuple(
            ApiRoute(
                logical_id,
                event["Properties"]["Method"].upper(),
                event["Properties"]["Path"],
                "Auth" in event["Properties"],
            )
            for event in properties.get("Events", {}).values()
            if event["Type"] == "Api"
        )
        variables = {
            **defaults.get("Environment", {}).get("Variables", {}),
            **resource["Properties"].get("Environment", {}).get("Variables", {}),
        }
        environment = {name: str(resolve(value, parameters)) for name, value in variables.items()}
        specs[logical_id] = FunctionSpec(
            logical_id, ROOT / properties["CodeUri"], properties["Handler"], routes, environment, properties
        )
    return specs


def function_serving(path: str, template: Mapping[str, Any] | None = None) -> FunctionSpec:
    """The function of the template that API Gateway sends ``path`` to."""
    (spec,) = [spec for spec in functions(template).values() if any(route.path == path for route in spec.routes)]
    return spec
