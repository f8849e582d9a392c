"""Lambda entry point of SizeChunkFunction: POST /v1/tools/text-size-chunk/versions/1.0.0/execute."""

from api_adapter import make_api_handler

lambda_handler = make_api_handler("text-size-chunk")
COUNTS_TOKENS = True
"""Its package holds the deployed tokenizers (src/handlers/Makefile): the tool takes ``tokenizer``."""
