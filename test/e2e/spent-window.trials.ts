// The same tests as spent-window.test.ts, with the sandbox's whole minute (see test/helpers/trials.ts).
import './spent-window.test.js';
