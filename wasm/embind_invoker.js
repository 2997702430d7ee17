// Embind's JS invoker for every bound function and method, without eval or new Function, so the
// glue runs under a Content-Security-Policy without 'unsafe-eval' (and in browser extensions).
//
// The link uses -sDYNAMIC_EXECUTION=0, Emscripten's supported switch for that; under it Embind
// 3.1.6 falls back to one generic invoker whose argument and destructor arrays are shared by all
// calls of a function, so a call made from inside a JS callback (a user-defined SQL function
// running a statement) would overwrite the outer call's state. This library replaces
// craftInvokerFunction (linked with --js-library after Embind's, so its definition wins) with an
// invoker that keeps each call's state in locals.
mergeInto(LibraryManager.library, {
  $craftInvokerFunction__deps: ['$runDestructors', '$throwBindingError'],
  $craftInvokerFunction: function(humanName, argTypes, classType, cppInvokerFunc, cppTargetFunc) {
    var argCount = argTypes.length;
    if (argCount < 2) {
      throwBindingError("argTypes array size mismatch! Must at least get return value and 'this' types!");
    }
    var isMethod = argTypes[1] !== null && classType !== null;
    var thisType = argTypes[1];
    var retType = argTypes[0];
    var returns = retType.name !== 'void';
    var n = argCount - 2;
    // A type without a destructorFunction property needs the destructor stack (as Embind's own
    // generated invokers decide).
    var needsStack = false;
    for (var i = 1; i < argCount; ++i) {
      if (argTypes[i] !== null && argTypes[i].destructorFunction === undefined) {
        needsStack = true;
        break;
      }
    }
    // One call's state lives in its own locals and arrays, never in the closure.
    return function(...args) {
      if (args.length !== n) {
        throwBindingError('function ' + humanName + ' called with ' + args.length + ' arguments, expected ' + n + ' args!');
      }
      var destructors = needsStack ? [] : null;
      var thisWired = isMethod ? thisType['toWireType'](destructors, this) : undefined;
      var wired = new Array(n);
      for (var i = 0; i < n; ++i) wired[i] = argTypes[i + 2]['toWireType'](destructors, args[i]);
      var rv = isMethod ? cppInvokerFunc(cppTargetFunc, thisWired, ...wired) : cppInvokerFunc(cppTargetFunc, ...wired);
      if (needsStack) {
        runDestructors(destructors);
      } else {
        if (isMethod && thisType.destructorFunction !== null) thisType.destructorFunction(thisWired);
        for (var j = 0; j < n; ++j) {
          var dtor = argTypes[j + 2].destructorFunction;
          if (dtor !== null) dtor(wired[j]);
        }
      }
      return returns ? retType['fromWireType'](rv) : undefined;
    };
  },
});
