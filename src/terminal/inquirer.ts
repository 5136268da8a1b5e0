// The prompt library, bundled into a file of its own (src/build/bundle.mjs): only a run that
// asks a question loads it. Named exports, so that they survive the trip through CommonJS.
export { input, select } from '@inquirer/prompts';
