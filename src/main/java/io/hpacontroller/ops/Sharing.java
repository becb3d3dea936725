package io.hpacontroller.ops;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Structural sharing between two values of the same shape: a record, list or string of the newer value that
 * equals the one in the same place of the older value is replaced by the older one. An HPA's successive
 * decision traces differ in a few fields (the time, the metrics' timestamps, an age); the rest, most of all the
 * strings (metric descriptions, condition messages) each sync builds anew, is then held once for all the kept
 * traces of the HPA instead of once per trace.
 *
 * <p>Records are rebuilt through their canonical constructor, so a record type whose compact constructor
 * changes equal input into unequal state must not be shared this way (none of the traces' does).
 */
final class Sharing {

    private Sharing() {
    }

    private record Shape(Method[] accessors, Constructor<?> constructor) {
    }

    private static final ClassValue<Shape> SHAPES = new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
            RecordComponent[] components = type.getRecordComponents();
            Method[] accessors = new Method[components.length];
            Class<?>[] types = new Class<?>[components.length];
            for (int i = 0; i < components.length; i++) {
                accessors[i] = components[i].getAccessor();
                accessors[i].setAccessible(true);
                types[i] = components[i].getType();
            }
            try {
                Constructor<?> constructor = type.getDeclaredConstructor(types);
                constructor.setAccessible(true);
                return new Shape(accessors, constructor);
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException("a record without its canonical constructor: " + type, e);
            }
        }
    };

    /** {@code newer}, with every part that equals the same part of {@code older} taken from {@code older}. */
    @SuppressWarnings("unchecked")
    static <T> T share(T older, T newer) {
        return (T) shared(older, newer);
    }

    private static Object shared(Object older, Object newer) {
        if (older == null || newer == null || older == newer) {
            return newer;
        }
        if (newer instanceof List<?> n && older instanceof List<?> o) {
            // List.of, an unmodifiable view of a list shared before: equal as lists whatever the class
            return o.equals(n) ? o : n.size() == o.size() ? sharedList(o, n) : n;
        }
        if (older.getClass() != newer.getClass()) {
            return newer;
        }
        if (older.equals(newer)) {
            return older;
        }
        return newer instanceof Record ? sharedRecord(older, newer) : newer;
    }

    private static Object sharedRecord(Object older, Object newer) {
        Shape shape = SHAPES.get(newer.getClass());
        Object[] parts = new Object[shape.accessors().length];
        boolean shared = false;
        try {
            for (int i = 0; i < parts.length; i++) {
                Object n = shape.accessors()[i].invoke(newer);
                parts[i] = shared(shape.accessors()[i].invoke(older), n);
                shared |= parts[i] != n;
            }
            return shared ? shape.constructor().newInstance(parts) : newer;
        } catch (IllegalAccessException | InstantiationException | InvocationTargetException e) {
            throw new IllegalStateException("cannot rebuild a " + newer.getClass().getSimpleName(), e);
        }
    }

    private static Object sharedList(List<?> older, List<?> newer) {
        List<Object> parts = new ArrayList<>(newer.size());
        boolean shared = false;
        for (int i = 0; i < newer.size(); i++) {
            Object n = newer.get(i);
            Object part = shared(older.get(i), n);
            parts.add(part);
            shared |= part != n;
        }
        return shared ? Collections.unmodifiableList(parts) : newer;
    }
}
