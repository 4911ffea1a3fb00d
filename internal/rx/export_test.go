package rx

// Warm compiles every expression, for the tests.
var Warm = warm
