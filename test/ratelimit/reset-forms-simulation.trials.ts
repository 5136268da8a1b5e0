// The same tests as reset-forms-simulation.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './reset-forms-simulation.test.js';
