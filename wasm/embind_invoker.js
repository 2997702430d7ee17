// Embind's JS invoker for every bound function and method, without eval or new Function, so the
// glue runs under a Content-Security-Policy without 'unsafe-eval' (and in browser extensions).
//
// The link uses -sDYNAMIC_EXECUTION=0, Emscripten's supported switch for that; under it Embind
// 3.1.6 falls back to one generic invoker whose argument and destructor arrays are shared by all
// calls of a function, so a call made from inside a JS callback (a user-defined SQL function
// running a statement) would overwrite the outer call's state. This library replaces
// craftInvokerFunction (linked with --js-library after Embind's, so its definition wins) with an
// invoker that keeps each call's state in locals, as fast as Embind's generated ones.
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
    function arity(count) {
      if (count !== n) {
        throwBindingError('function ' + humanName + ' called with ' + count + ' arguments, expected ' + n + ' args!');
      }
    }
    var thisDtor = isMethod ? thisType.destructorFunction : null;
    var dtors = [];
    for (var k = 2; k < argCount; ++k) dtors.push(argTypes[k].destructorFunction);
    var t0 = argTypes[2], t1 = argTypes[3], t2 = argTypes[4];
    var d0 = dtors[0], d1 = dtors[1], d2 = dtors[2];
    // Ends a call of up to three arguments: its destructors, then the return value from the wire.
    function done(destructors, thisWired, w0, w1, w2, rv) {
      if (needsStack) {
        runDestructors(destructors);
      } else {
        if (thisDtor) thisDtor(thisWired);
        if (d0) d0(w0);
        if (d1) d1(w1);
        if (d2) d2(w2);
      }
      return returns ? retType['fromWireType'](rv) : undefined;
    }
    // One call's state lives in its own locals, never in the closure. Fixed arities (all the
    // bindings use) avoid `arguments` arrays and spreads on the hot paths (stepBatch, run).
    if (n === 0) {
      return function() {
        arity(arguments.length);
        var ds = needsStack ? [] : null;
        var tw = isMethod ? thisType['toWireType'](ds, this) : 0;
        return done(ds, tw, 0, 0, 0, isMethod ? cppInvokerFunc(cppTargetFunc, tw) : cppInvokerFunc(cppTargetFunc));
      };
    }
    if (n === 1) {
      return function(a0) {
        arity(arguments.length);
        var ds = needsStack ? [] : null;
        var tw = isMethod ? thisType['toWireType'](ds, this) : 0;
        var w0 = t0['toWireType'](ds, a0);
        return done(ds, tw, w0, 0, 0, isMethod ? cppInvokerFunc(cppTargetFunc, tw, w0) : cppInvokerFunc(cppTargetFunc, w0));
      };
    }
    if (n === 2) {
      return function(a0, a1) {
        arity(arguments.length);
        var ds = needsStack ? [] : null;
        var tw = isMethod ? thisType['toWireType'](ds, this) : 0;
        var w0 = t0['toWireType'](ds, a0), w1 = t1['toWireType'](ds, a1);
        return done(ds, tw, w0, w1, 0, isMethod ? cppInvokerFunc(cppTargetFunc, tw, w0, w1) : cppInvokerFunc(cppTargetFunc, w0, w1));
      };
    }
    if (n === 3) {
      return function(a0, a1, a2) {
        arity(arguments.length);
        var ds = needsStack ? [] : null;
        var tw = isMethod ? thisType['toWireType'](ds, this) : 0;
        var w0 = t0['toWireType'](ds, a0), w1 = t1['toWireType'](ds, a1), w2 = t2['toWireType'](ds, a2);
        return done(ds, tw, w0, w1, w2,
                    isMethod ? cppInvokerFunc(cppTargetFunc, tw, w0, w1, w2) : cppInvokerFunc(cppTargetFunc, w0, w1, w2));
      };
    }
    return function(...args) {
      arity(args.length);
      var ds = needsStack ? [] : null;
      var tw = isMethod ? thisType['toWireType'](ds, this) : 0;
      var wired = new Array(n);
      for (var i = 0; i < n; ++i) wired[i] = argTypes[i + 2]['toWireType'](ds, args[i]);
      var rv = isMethod ? cppInvokerFunc(cppTargetFunc, tw, ...wired) : cppInvokerFunc(cppTargetFunc, ...wired);
      if (needsStack) {
        runDestructors(ds);
      } else {
        if (thisDtor) thisDtor(tw);
        for (var j = 0; j < n; ++j) if (dtors[j]) dtors[j](wired[j]);
      }
      return returns ? retType['fromWireType'](rv) : undefined;
    };
  },
});
