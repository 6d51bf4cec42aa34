// The component's entry: wires the check to the host. The logic is in
// message-guard.js (unit tested natively with `node --test`).
import { log } from 'toolvet:check/host@0.2.0';
import { exportCheck } from '../toolvet-check/index.js';
import { MessageGuard } from './message-guard.js';

export const check = exportCheck(MessageGuard, log);
