"""template.yaml as CloudFormation would deploy it: AWS::LanguageExtensions, then the SAM transform.

Offline: the SAM CLI's language-extensions processor and the SAM translator, with stand-in code
locations and no managed-policy lookups.
"""

from typing import Any

from samcli.lib.cfn_language_extensions.api import process_template
from samcli.lib.cfn_language_extensions.models import PseudoParameterValues
from samcli.yamlhelper import yaml_parse
from samtranslator.translator.transform import transform

from scripts.lambda_events import LOCAL_ACCOUNT_ID, LOCAL_REGION
from scripts.template import TEMPLATE, parameter_defaults

PSEUDO = {"AWS::Region": LOCAL_REGION, "AWS::AccountId": LOCAL_ACCOUNT_ID, "AWS::Partition": "aws"}


class _NoManagedPolicies:
    def load(self) -> dict[str, str]:
        return {}


def deployed(**parameters: str) -> dict[str, Any]:
    """The CloudFormation resources the stack would create with these parameter values."""
    template = yaml_parse(TEMPLATE.read_text(encoding="utf-8"))
    values = parameter_defaults(template) | parameters
    pseudo = PseudoParameterValues(region=LOCAL_REGION, account_id=LOCAL_ACCOUNT_ID, stack_name="text-tools")
    processed = process_template(template, parameter_values=values, pseudo_parameters=pseudo)
    processed["Transform"] = "AWS::Serverless-2016-10-31"
    processed["Globals"]["Function"]["CodeUri"] = "s3://bucket/code.zip"
    processed["Resources"]["CoreLayer"]["Properties"]["ContentUri"] = "s3://bucket/layer.zip"
    for resource in processed["Resources"].values():  # sam package uploads state machine definitions
        if resource["Type"] == "AWS::Serverless::StateMachine":
            resource["Properties"]["DefinitionUri"] = "s3://bucket/definition.asl.json"
    result: dict[str, Any] = transform(processed, values | PSEUDO, _NoManagedPolicies())
    return result
