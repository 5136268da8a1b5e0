// The same tests as progress-terminal.test.ts, with the resize (see test/helpers/trials.ts).
import './progress-terminal.test.js';
