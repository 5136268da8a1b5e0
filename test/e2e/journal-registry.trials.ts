// The same tests as journal-registry.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './journal-registry.test.js';
