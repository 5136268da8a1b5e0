// conf, by name. The build gives this module a file of its own (src/build/bundle.mjs):
// conf brings ajv, and only commands that write the config load it.
export { default as Conf } from 'conf';
