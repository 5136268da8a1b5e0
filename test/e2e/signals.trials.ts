// The same tests as signals.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './signals.test.js';
