import { writeSync } from 'node:fs';

/**
 * Why pets cannot run on Node `version` ("20.20.2"), as one line, or undefined when it can.
 * Pure, so that a test can ask about any version while running on a supported one.
 */
export function unsupportedNode(version: string, json: boolean): string | undefined {
  // 22.19 is the oldest Node pets runs on: JSON.parse's reviver context.source came in it.
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 19)) return undefined;
  const message =
    `pets needs Node.js 22.19 or newer, and this is Node ${version}. ` +
    'Install a current Node (https://nodejs.org, or `nvm install 24`), ' +
    'or use the single executable pets-linux-x64, which needs no Node.';
  if (!json) return `error: ${message}\n`;
  // The same shape as every other --json error (terminal/report-error.ts), written by hand:
  // nothing else of pets may load on a Node it does not support.
  const error = { code: 'unsupported_node', message, status: null, exitCode: 1 };
  return `${JSON.stringify({ error })}\n`;
}

/**
 * Refuses to run on an unsupported Node: writes the line (JSON under --json) to stderr and
 * returns exit code 1, or undefined when this Node is supported. Nothing but node:fs is used,
 * and nothing newer than Node 12, so that the refusal itself works on the Nodes it refuses.
 */
export function refuseUnsupportedNode(json: boolean): number | undefined {
  const line = unsupportedNode(process.versions.node, json);
  if (line === undefined) return undefined;
  try {
    writeSync(2, line);
  } catch {
    // stderr closed: the exit code still says it
  }
  return 1;
}
