/* A loadable library without GetPjrtApi. */
__attribute__((visibility("default"))) int not_a_tpu_runtime(void) { return 1; }
