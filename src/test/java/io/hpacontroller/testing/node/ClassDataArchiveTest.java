package io.hpacontroller.testing.node;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The class-data archives are written only for a runtime whose launcher is this machine's kind of program. */
class ClassDataArchiveTest {

    @Test
    void aRuntimeOfThisPlatformRunsHereAndOneOfAnotherDoesNot(@TempDir Path dir) throws Exception {
        Path ours = Path.of(System.getProperty("java.home"), "bin", "java");
        assertThat(ClassDataArchive.runsHere(ours)).isTrue();

        Path foreign = dir.resolve("java");
        byte[] elf = Files.readAllBytes(ours);
        elf[18] = (byte) (elf[18] == (byte) 0xb7 ? 0x3e : 0xb7); // e_machine: aarch64 for x86-64, x86-64 for the rest
        elf[19] = 0;
        Files.write(foreign, elf);
        assertThat(ClassDataArchive.runsHere(foreign)).isFalse();
    }
}
