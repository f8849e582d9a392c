"""Lambda entry point of MarkdownSectionsChunkFunction:
POST /v1/tools/markdown-sections-chunk/versions/1.0.0/execute."""

from api_adapter import make_api_handler

lambda_handler = make_api_handler("markdown-sections-chunk")
