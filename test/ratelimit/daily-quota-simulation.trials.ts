// The same tests as daily-quota-simulation.test.ts, tried as many times as it names (see test/helpers/trials.ts).
import './daily-quota-simulation.test.js';
