// cli-table3, by name. The build gives this module a file of its own (src/build/bundle.mjs):
// only tables on a terminal load it.
export { default as Table } from 'cli-table3';
