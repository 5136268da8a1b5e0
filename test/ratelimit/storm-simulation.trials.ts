// The same tests as storm-simulation.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './storm-simulation.test.js';
