package io.hpacontroller.cli;

import io.hpacontroller.conformance.ConformanceRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code conformance DIR...}: runs every case file through the decision core. */
@Command(name = "conformance", mixinStandardHelpOptions = true,
        description = {"Runs every *.json conformance case under the given directories through the decision core.",
                "Prints PASS <name> or FAIL <name>: <what differed> per case, then \"N passed, M failed\".",
                "Exits 1 when any case failed or no case file was found, 2 when a directory does not exist."})
public final class ConformanceCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "DIR", description = "directories (or single files) holding case files")
    List<Path> roots;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<Path> cases;
        try {
            cases = ConformanceRunner.findCases(roots);
        } catch (IOException e) {
            spec.commandLine().getErr().println("conformance: " + e.getMessage());
            return 2;
        }
        if (cases.isEmpty()) {
            // a run that checked nothing must not read as a pass
            spec.commandLine().getErr().println("conformance: no case files (*.json) under " + String.join(", ", roots.stream().map(Path::toString).toList()));
            return 1;
        }
        ConformanceRunner runner = new ConformanceRunner();
        int passed = 0;
        int failed = 0;
        for (Path file : cases) {
            ConformanceRunner.Result r = runner.run(file);
            out.println(r.line());
            if (r.passed()) {
                passed++;
            } else {
                failed++;
            }
        }
        out.println(passed + " passed, " + failed + " failed");
        out.flush();
        return failed == 0 ? 0 : 1;
    }
}
