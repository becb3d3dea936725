package io.hpacontroller.conformance;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Fields a fabric8 model class does not know: the parser keeps them in additionalProperties.
 * A typo in a manifest or a case file (runAsNonroot, readinessprobe, averageUtilisation) lands there
 * instead of failing, so the conformance runner and the deployment tests refuse a non-empty list.
 */
public final class UnknownFields {

    private UnknownFields() {
    }

    /** Paths of every unknown field in the object graph, e.g. "spec.template.spec.containers[0].foo". */
    public static List<String> in(Object object) {
        List<String> found = new ArrayList<>();
        walk(object, "", found);
        return found;
    }

    private static void walk(Object node, String path, List<String> found) {
        if (node == null) {
            return;
        }
        if (node instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                walk(item, path + "[" + i++ + "]", found);
            }
            return;
        }
        if (node instanceof Map<?, ?> entries) {
            entries.forEach((k, v) -> walk(v, path + "[" + k + "]", found));
            return;
        }
        if (!isModel(node)) {
            return;
        }
        for (Method getter : node.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get") || getter.getName().equals("getClass")) {
                continue;
            }
            Object value = invoke(getter, node);
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> unknown) {
                    unknown.keySet().forEach(k -> found.add(join(path, String.valueOf(k))));
                }
                continue;
            }
            walk(value, join(path, property(getter)), found);
        }
    }

    /** fabric8 model objects; a GenericKubernetesResource (a kind without a model class) is all additionalProperties. */
    private static boolean isModel(Object node) {
        return node.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")
                && !(node instanceof GenericKubernetesResource);
    }

    private static Object invoke(Method getter, Object node) {
        try {
            return getter.invoke(node);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + getter, e);
        }
    }

    private static String property(Method getter) {
        String name = getter.getName().substring(3);
        return Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    private static String join(String path, String name) {
        return path.isEmpty() ? name : path + "." + name;
    }
}
