package io.hpacontroller.core;

import io.fabric8.kubernetes.api.model.Quantity;

import io.hpacontroller.core.model.ResourceAmounts;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * Kubernetes quantities as the HPA controller uses them: integer milli-units.
 *
 * <p>Upstream reads every target and metric with {@code Quantity.MilliValue()}, which rounds up to
 * the next milli-unit; the replica math then runs on those integers. Writing a value back into the
 * status goes through {@code NewMilliQuantity} with the DecimalSI format (memory included), whose
 * canonical text this class reproduces ("500m", "1", "2k", "104857600").
 *
 * <p>Bounded work: the API server accepts quantities of any size ({@code 1e10000000} is stored as
 * {@code 10e9999999}), and computing such a value with BigDecimal took 29 s of CPU. Every quantity's text is
 * first checked against {@link #MAX_DIGITS} and {@link #MAX_EXPONENT_DIGITS} ({@link #outOfBounds}), a scan of
 * at most a few dozen characters; one beyond them is refused as invalid before any arithmetic. The values a
 * controller computes with (a long of milli-units: 1m to 9.2e15) lie far inside those bounds.
 */
public final class Quantities {

    private static final BigDecimal THOUSAND = BigDecimal.valueOf(1000);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final String[] DECIMAL_SUFFIXES = {"", "k", "M", "G", "T", "P", "E"};

    /** The most digits the number of a quantity may have (before and after its decimal point). */
    public static final int MAX_DIGITS = 64;
    /** The most digits of a quantity's decimal exponent ({@code 1e99}, {@code 5E-12}): at most 10^±99. */
    public static final int MAX_EXPONENT_DIGITS = 2;
    /** The suffixes other than an exponent, as upstream's {@code resource.Quantity} knows them. */
    private static final Set<String> SUFFIXES = Set.of("", "n", "u", "m", "k", "M", "G", "T", "P", "E",
            "Ki", "Mi", "Gi", "Ti", "Pi", "Ei");

    private Quantities() {
    }

    /**
     * Why a quantity's text is beyond what this controller computes with, or null when it is within: more than
     * {@value #MAX_DIGITS} digits, an exponent of more than {@value #MAX_EXPONENT_DIGITS} digits, or a suffix that
     * is no Kubernetes suffix (fabric8 would read any digits in it as an exponent: "1k99999999"). Reads at most
     * about {@value #MAX_DIGITS} characters, whatever the length of the text; what else is wrong with it (two
     * decimal points, no digit) is left to the parser.
     */
    public static String outOfBounds(String text) {
        int n = text.length();
        int i = n > 0 && (text.charAt(0) == '+' || text.charAt(0) == '-') ? 1 : 0;
        int digits = 0;
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (c >= '0' && c <= '9') {
                if (++digits > MAX_DIGITS) {
                    return "quantities may have at most " + MAX_DIGITS + " digits";
                }
            } else if (c != '.') {
                break;
            }
        }
        if (n - i <= 2 && SUFFIXES.contains(text.substring(i))) {
            return null;
        }
        char first = text.charAt(i);
        if ((first == 'e' || first == 'E') && n - i > 1) {
            int j = i + 1;
            if (text.charAt(j) == '+' || text.charAt(j) == '-') {
                j++;
            }
            int exponentDigits = 0;
            for (; j < n; j++) {
                char c = text.charAt(j);
                if (c < '0' || c > '9') {
                    return "quantities must match the regular expression '" + QUANTITY_FORMAT + "'";
                }
                if (++exponentDigits > MAX_EXPONENT_DIGITS) {
                    return "the exponent of a quantity may have at most " + MAX_EXPONENT_DIGITS + " digits (1e99 at most)";
                }
            }
            return null;
        }
        return "quantities must match the regular expression '" + QUANTITY_FORMAT + "'";
    }

    private static void requireWithinBounds(String text) {
        String beyond = outOfBounds(text);
        if (beyond != null) {
            throw new IllegalArgumentException("malformed quantity " + shown(text) + ": " + beyond);
        }
    }

    /** Upstream's regular expression of a quantity, as its parse error quotes it. */
    public static final String QUANTITY_FORMAT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

    /** A quantity's text as a message shows it: at most 40 characters, then how long it is. */
    public static String shown(String text) {
        return text.length() <= 40 ? "\"" + text + "\"" : "\"" + text.substring(0, 40) + "...\" (" + text.length() + " characters)";
    }

    private static String text(Quantity quantity) {
        String amount = quantity.getAmount() == null ? "" : quantity.getAmount();
        return quantity.getFormat() == null ? amount : amount + quantity.getFormat();
    }

    /**
     * The quantity in milli-units, rounded up (away from zero, as upstream's {@code MilliValue} rounds:
     * "0.5m" is 1, "-0.5m" is -1), saturated at the bounds of a long.
     *
     * @throws IllegalArgumentException when the quantity is not a valid Kubernetes quantity
     */
    public static long milliValue(Quantity quantity) {
        if (quantity != null && quantity.getAmount() != null) {
            long fast = plainMilliValue(text(quantity));
            if (fast != NOT_PLAIN) {
                return fast;
            }
        }
        return generalMilliValue(quantity);
    }

    /** {@link #milliValue(Quantity)} through BigDecimal, for every form. */
    static long generalMilliValue(Quantity quantity) {
        BigDecimal milli = numericalAmount(quantity).multiply(THOUSAND).setScale(0, RoundingMode.UP);
        if (milli.compareTo(LONG_MAX) > 0) {
            return Long.MAX_VALUE;
        }
        if (milli.compareTo(LONG_MIN) < 0) {
            return Long.MIN_VALUE;
        }
        return milli.longValueExact();
    }

    /** The milli-value of a quantity written as text, e.g. "500m". */
    public static long milliValue(String quantity) {
        long fast = plainMilliValue(quantity);
        if (fast != NOT_PLAIN) {
            return fast;
        }
        if (quantity != null) {
            requireWithinBounds(quantity);
        }
        return generalMilliValue(new Quantity(quantity));
    }

    private static final long NOT_PLAIN = Long.MIN_VALUE;

    /**
     * The milli-value of the quantities metrics servers write, digits and one of the suffixes n, u, m, none, k,
     * M, G, Ki, Mi, Gi ("1234567n", "50m", "64Mi"), read without BigDecimal; {@link #NOT_PLAIN} for any other
     * text (signs, decimal points, exponents, other suffixes, more than 18 digits, a result beyond a long),
     * which the general path reads.
     */
    private static long plainMilliValue(String s) {
        if (s == null) {
            return NOT_PLAIN;
        }
        int n = s.length();
        int digits = 0;
        long value = 0;
        while (digits < n && digits <= 18) {
            char c = s.charAt(digits);
            if (c < '0' || c > '9') {
                break;
            }
            value = value * 10 + (c - '0');
            digits++;
        }
        if (digits == 0 || digits > 18) {
            return NOT_PLAIN;
        }
        String suffix = s.substring(digits);
        try {
            return switch (suffix) {
                case "n" -> ceilDiv(value, 1_000_000);
                case "u" -> ceilDiv(value, 1_000);
                case "m" -> value;
                case "" -> Math.multiplyExact(value, 1_000L);
                case "k" -> Math.multiplyExact(value, 1_000_000L);
                case "M" -> Math.multiplyExact(value, 1_000_000_000L);
                case "G" -> Math.multiplyExact(value, 1_000_000_000_000L);
                case "Ki" -> Math.multiplyExact(value, 1_024_000L);
                case "Mi" -> Math.multiplyExact(value, 1_048_576_000L);
                case "Gi" -> Math.multiplyExact(value, 1_073_741_824_000L);
                default -> NOT_PLAIN;
            };
        } catch (ArithmeticException beyondALong) {
            return NOT_PLAIN; // the general path saturates
        }
    }

    private static long ceilDiv(long value, long divisor) {
        return value / divisor + (value % divisor == 0 ? 0 : 1);
    }

    /** The quantity as a double, like upstream's {@code AsApproximateFloat64}. */
    public static double approximate(Quantity quantity) {
        return numericalAmount(quantity).doubleValue();
    }

    /** The value of a quantity within the bounds ({@link #outOfBounds}); the only place this class makes a BigDecimal of one. */
    private static BigDecimal numericalAmount(Quantity quantity) {
        if (quantity == null) {
            throw new IllegalArgumentException("quantity is not set");
        }
        String text = text(quantity);
        requireWithinBounds(text);
        try {
            return quantity.getNumericalAmount();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed quantity " + shown(text), e);
        }
    }

    /** A quantity in the DecimalSI format from a milli-value, as {@code resource.NewMilliQuantity(v, DecimalSI)}. */
    public static Quantity decimal(long milli) {
        return new Quantity(formatDecimal(milli));
    }

    /** The canonical DecimalSI text of a milli-value. */
    public static String formatDecimal(long milli) {
        if (milli == 0) {
            return "0";
        }
        if (milli % 1000 != 0) {
            return milli + "m";
        }
        long whole = milli / 1000;
        int exponent = 0;
        while (whole % 1000 == 0 && exponent < DECIMAL_SUFFIXES.length - 1) {
            whole /= 1000;
            exponent++;
        }
        return whole + DECIMAL_SUFFIXES[exponent];
    }

    private static final BigDecimal BINARY_STEP = BigDecimal.valueOf(1024);
    private static final String[] BINARY_SUFFIXES = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

    /**
     * A quantity as the API server writes it back (upstream's canonical {@code Quantity.String()}): in the format its
     * suffix chose, "256Mi" for 256Mi or 0.25Gi, "268435456" for 268435456, "500m" for 0.5. A binary quantity below 1024 or
     * with a fraction is written as a decimal one ("512" for 0.5Ki), as upstream does; one with an exponent, or finer than a
     * milli-unit, is left as written.
     *
     * @throws IllegalArgumentException when the text is not a valid Kubernetes quantity
     */
    public static String canonical(String quantity) {
        Quantity q = new Quantity(quantity);
        BigDecimal value = numericalAmount(q);
        String suffix = q.getFormat() == null ? "" : q.getFormat();
        if (suffix.endsWith("i") && value.abs().compareTo(BINARY_STEP) >= 0 && value.stripTrailingZeros().scale() <= 0) {
            BigDecimal whole = value.setScale(0, RoundingMode.UNNECESSARY);
            int exponent = 0;
            while (exponent < BINARY_SUFFIXES.length - 1 && whole.remainder(BINARY_STEP).signum() == 0) {
                whole = whole.divide(BINARY_STEP);
                exponent++;
            }
            return whole.toPlainString() + BINARY_SUFFIXES[exponent];
        }
        BigDecimal milli = value.multiply(THOUSAND);
        if (suffix.startsWith("e") || suffix.startsWith("E") || milli.stripTrailingZeros().scale() > 0
                || milli.abs().compareTo(LONG_MAX) > 0) {
            return quantity;
        }
        return formatDecimal(milli.longValueExact());
    }

    /**
     * A resource list (requests, or a container's usage) in milli-values. An entry that is not a
     * quantity is left out, so it reads as "not set": a request missing for a Utilization metric, or a
     * pod with missing metrics.
     */
    public static ResourceAmounts amounts(Map<String, Quantity> quantities) {
        return amounts(quantities, Quantities::milliValue);
    }

    /** {@link #amounts(Map)} of quantities written as text, as the metrics APIs answer them. */
    public static ResourceAmounts amountsOfText(Map<String, String> quantities) {
        return amounts(quantities, Quantities::milliValue);
    }

    private static <Q> ResourceAmounts amounts(Map<String, Q> quantities, ToLongFunction<Q> milliValue) {
        if (quantities == null || quantities.isEmpty()) {
            return ResourceAmounts.EMPTY;
        }
        Map<String, Long> milli = new TreeMap<>();
        quantities.forEach((name, q) -> {
            try {
                milli.put(name, milliValue.applyAsLong(q));
            } catch (IllegalArgumentException e) {
                // left out: see above
            }
        });
        return ResourceAmounts.of(milli);
    }

    /**
     * Numeric equality of two quantities (either may be null); malformed ones compare by their text. The same
     * text (amount and format) is equal without computing the value.
     */
    public static boolean sameValue(Quantity a, Quantity b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (Objects.equals(a.getAmount(), b.getAmount()) && Objects.equals(a.getFormat(), b.getFormat())) {
            return true;
        }
        try {
            return numericalAmount(a).compareTo(numericalAmount(b)) == 0;
        } catch (RuntimeException e) {
            // a malformed quantity has no value to compare (and Quantity.equals would throw): compare the text
            return a.toString().equals(b.toString());
        }
    }
}
