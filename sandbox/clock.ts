/** MediaGen's clock: the real one moved by `offsetMs` (control.setClock; reset puts it back). */
export const clock = { offsetMs: 0 };
