/* eslint-disable @n8n/community-nodes/no-restricted-globals -- dev-only code (tests): never published, see package.json "files" */
/**
 * n8n's clock in a test process: `Date.now()` and `new Date()` moved by an offset, as n8n's
 * would be after an NTP step, or a day back for a run that happened a day before its Retry.
 */

/** Shifts this process's clock (Date.now and `new Date()`) by `offset` ms; returns the undo. */
export function shiftClock(offset: number): () => void {
	const Real = globalThis.Date;
	class Shifted extends Real {
		constructor(...args: unknown[]) {
			if (args.length === 0) super(Real.now() + offset);
			else super(...(args as [string | number | Date]));
		}
		static now() {
			return Real.now() + offset;
		}
	}
	globalThis.Date = Shifted as DateConstructor;
	return () => {
		globalThis.Date = Real;
	};
}
