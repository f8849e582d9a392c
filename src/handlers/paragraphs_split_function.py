"""Lambda entry point of ParagraphsSplitFunction: POST /v1/tools/text-paragraphs-split/versions/1.0.0/execute."""

from api_adapter import make_api_handler

lambda_handler = make_api_handler("text-paragraphs-split")
