// The same tests as echo-leaks.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './echo-leaks.test.js';
