// The block structure that commonmark.js 0.31.2 (the CommonMark spec's reference implementation in
// JavaScript) finds in documents: one JSON string (a document) a line on stdin, one JSON line a
// document on stdout: {"headings": [[level, first line, last line], ...] of its top-level headings,
// "literals": [[first line, last line], ...] of its code and HTML blocks at any depth} (1-based).
"use strict";
const commonmark = require("commonmark");
const readline = require("readline");

const parser = new commonmark.Parser();
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const document = parser.parse(JSON.parse(line));
  const headings = [];
  for (let node = document.firstChild; node; node = node.next) {
    if (node.type === "heading") headings.push([node.level, node.sourcepos[0][0], node.sourcepos[1][0]]);
  }
  const literals = [];
  const walker = document.walker();
  for (let step = walker.next(); step; step = walker.next()) {
    const node = step.node;
    if (step.entering && (node.type === "code_block" || node.type === "html_block")) {
      literals.push([node.sourcepos[0][0], node.sourcepos[1][0]]);
    }
  }
  process.stdout.write(JSON.stringify({ headings, literals }) + "\n");
});
