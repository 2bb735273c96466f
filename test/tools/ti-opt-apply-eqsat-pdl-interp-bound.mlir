// RUN: not ti-opt %s -p 'apply-eqsat-pdl-interp{max_op_comparisons=500}' 2>&1 | filecheck %s --check-prefix=BOUND
// RUN: ti-opt %s -p apply-eqsat-pdl-interp | filecheck %s --check-prefix=UNDER
// RUN: not ti-opt %s -p 'apply-eqsat-pdl-interp{max_op_comparisons=0}' 2>&1 | filecheck %s --check-prefix=OPTION

// xDSL's apply-eqsat-pdl-interp hash-conses every op before its first iteration; ops that
// hold regions and agree on name, attributes, operands and result types hash alike and are
// told apart by comparing their regions op by op: a nest of `scf.execute_region`s d deep
// costs about d^3/6 comparisons (this one, 20 deep, 1200; the fuzzer's 200 deep, 1.3
// million: over 10 s; 1000 deep, hours). ti-opt's version counts them and gives up past
// `max_op_comparisons` (10000 unless set) with a diagnostic at the op it was comparing.

// BOUND-NOT: Traceback
// BOUND: ti-opt-apply-eqsat-pdl-interp-bound.mlir:{{[0-9]+}}:{{[0-9]+}}: error: apply-eqsat-pdl-interp gave up after 500 op comparisons
// BOUND-SAME: raise max_op_comparisons if the input needs more
// BOUND-NEXT: scf.execute_region {

// Under the default bound the pass runs as xDSL's does.
// UNDER: func.func @deep()
// UNDER-COUNT-20: scf.execute_region {

// OPTION: pass-pipeline:1:24
// OPTION: max_op_comparisons must be >= 1, got 0

pdl_interp.func @matcher(%root: !pdl.operation) {
  pdl_interp.finalize
}
func.func @deep() {
  scf.execute_region {
    scf.execute_region {
      scf.execute_region {
        scf.execute_region {
          scf.execute_region {
            scf.execute_region {
              scf.execute_region {
                scf.execute_region {
                  scf.execute_region {
                    scf.execute_region {
                      scf.execute_region {
                        scf.execute_region {
                          scf.execute_region {
                            scf.execute_region {
                              scf.execute_region {
                                scf.execute_region {
                                  scf.execute_region {
                                    scf.execute_region {
                                      scf.execute_region {
                                        scf.execute_region {
                                          scf.yield
                                        }
                                        scf.yield
                                      }
                                      scf.yield
                                    }
                                    scf.yield
                                  }
                                  scf.yield
                                }
                                scf.yield
                              }
                              scf.yield
                            }
                            scf.yield
                          }
                          scf.yield
                        }
                        scf.yield
                      }
                      scf.yield
                    }
                    scf.yield
                  }
                  scf.yield
                }
                scf.yield
              }
              scf.yield
            }
            scf.yield
          }
          scf.yield
        }
        scf.yield
      }
      scf.yield
    }
    scf.yield
  }
  func.return
}
