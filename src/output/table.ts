// cli-table3, and the one function that measures text in terminal columns, by name. The build
// gives this module a file of its own (src/build/bundle.mjs), where cli-table3 measures with
// this same string-width: only tables and the progress line on a terminal load it.
export { default as Table } from 'cli-table3';
export { default as stringWidth } from 'string-width';
