"""Lambda entry point of MarkdownSizeChunkFunction:
POST /v1/tools/markdown-size-chunk/versions/1.0.0/execute."""

from api_adapter import make_api_handler

lambda_handler = make_api_handler("markdown-size-chunk")
COUNTS_TOKENS = True
"""Its package holds the deployed tokenizers (src/handlers/Makefile): the tool takes ``tokenizer``."""
