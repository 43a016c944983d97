/**
 * The exit codes of every command, those of upstream's CLI (kli) where it defines one: 0 success; 1 the
 * input has errors or the operation failed (a cluster or auth error); 2 usage or unreadable input (a
 * file that cannot be read or does not parse); 3 the named workload does not exist, or its kind is not
 * installed; 4 no Karta definition covers the type. 5 is a bug of Karta's (an internal error, printed
 * in one line). 6: the result is printed, but evaluating the definition on this object or its pods
 * failed somewhere (`karta inspect`). 141: the reader of standard output closed it (`| head`), the
 * status of a program killed by SIGPIPE.
 */
export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
/** kli's ExitWorkloadNotFound. */
export const EXIT_WORKLOAD_NOT_FOUND = 3;
/** kli's ExitNotFound: no Karta covers the type. */
export const EXIT_NO_DEFINITION = 4;
export const EXIT_INTERNAL = 5;
/** Printed, but the definition failed on this object or its pods (each error on stderr; the rest stands). */
export const EXIT_EVALUATION_FAILED = 6;
export { EXIT_BROKEN_PIPE } from "./io.js";
