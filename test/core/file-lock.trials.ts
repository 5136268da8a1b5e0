// The same tests as file-lock.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './file-lock.test.js';
