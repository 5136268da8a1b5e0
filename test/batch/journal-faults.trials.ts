// The same tests as journal-faults.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './journal-faults.test.js';
