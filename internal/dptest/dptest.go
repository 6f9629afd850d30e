// Package dptest is the shared kit of the tests: one loader for `.dp`
// text (parse, check, plan), the canonical test problems as `.dp` sources
// with plain-Go reference solutions written from the textbook definitions,
// seeded random instances, and the one copy of the test data files
// (Path).
//
// Why a kit: before it, each package's tests had their own loader, their
// own paste of the LCS or lookback source and their own copy of the
// TSPLIB files, and the copies drifted. A change to the front end's
// entry points (the binding of data to a file, say) is now made here once.
//
// # The import rule
//
// dptest imports dsl, sema, bind, plan, ir and source (and what they import,
// such as problems/formats). A package's internal tests (package X) can
// use dptest only if X is not among those: Go refuses the cycle X test →
// dptest → … → X. The tests of dsl, sema, bind, plan, ir, source and
// problems/formats may use it from an external test package (package
// X_test) only. dptest must therefore never import an executor, codegen,
// eval, engine or problems: their tests are its users.
package dptest
