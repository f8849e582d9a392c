"""Lambda entry point of ExtractBetweenFunction: POST /v1/tools/text-extract-between/versions/1.0.0/execute."""

from api_adapter import make_api_handler

lambda_handler = make_api_handler("text-extract-between")
