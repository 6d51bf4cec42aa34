// The component's entry: wires the check to the host. Keep the logic in
// template.js so it can be unit tested natively (`node --test`).
import { log } from 'toolvet:check/host@0.2.0';
import { exportCheck } from '../toolvet-check/index.js';
import { Template } from './template.js';

export const check = exportCheck(Template, log);
// results: begin
// The same object vets results too (the check defines checkResult).
export const resultCheck = check;
// results: end
