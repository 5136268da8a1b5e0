// The same tests as journal-races.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './journal-races.test.js';
