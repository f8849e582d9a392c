// The top-level headings that commonmark.js 0.31.2 (the CommonMark spec's reference implementation
// in JavaScript) finds in documents: one JSON string (a document) a line on stdin, one JSON line a
// document on stdout: [[level, first line, last line], ...] of its top-level headings (1-based).
"use strict";
const commonmark = require("commonmark");
const readline = require("readline");

const parser = new commonmark.Parser();
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const headings = [];
  for (let node = parser.parse(JSON.parse(line)).firstChild; node; node = node.next) {
    if (node.type === "heading") headings.push([node.level, node.sourcepos[0][0], node.sourcepos[1][0]]);
  }
  process.stdout.write(JSON.stringify(headings) + "\n");
});
