// The same tests as journal-identity.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './journal-identity.test.js';
